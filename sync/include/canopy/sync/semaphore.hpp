// canopy/sync/semaphore.hpp — every canopy semaphore (Stuart & Owens 2011), scope-parameterized:
//   spin_semaphore<S, Backoff, BackoffInPost>  the word-as-lock spin semaphore (Alg. 4); alias
//                                              spin_backoff_semaphore (SO11's linear backoff)
//   sleeping_semaphore<S>                      fetch-and-add, ticketed, sleeping (Alg. 5, "turn > idx")
// Trivially copyable state for device memory, made with with_capacity(C); wait() acquires and post()
// releases at S. See docs/sync-locks.md.
#pragma once
#include "canopy/sync/sleeping_semaphore.hpp"
#include "canopy/sync/spin_semaphore.hpp"
