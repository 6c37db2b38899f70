// canopy/sync/mutex.hpp — every canopy mutex (Stuart & Owens 2011), scope-parameterized:
//   spin_mutex<S, Backoff>   test-and-set spin (Alg. 1/2); Backoff: no_backoff, linear_backoff (SO11),
//                            exponential_backoff; aliases spin_backoff_mutex, spin_exp_backoff_mutex
//   sleeping_mutex<S>        test-and-test-and-set that sleeps between load polls
//   ticket_mutex<S>          fetch-and-add (Alg. 3): fair, sleeps between load polls
// All are trivially copyable state for device memory (zero = unlocked) with lock()/unlock()/try_lock();
// lock() acquires and unlock() releases at S. See docs/sync-locks.md.
#pragma once
#include "canopy/sync/backoff.hpp"
#include "canopy/sync/sleeping_mutex.hpp"
#include "canopy/sync/spin_mutex.hpp"
#include "canopy/sync/ticket_mutex.hpp"
