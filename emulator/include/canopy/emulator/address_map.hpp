// canopy/emulator/address_map.hpp — a flat hash map from addresses to small integers.
//
// The scoped-cache model looks an address up on every emulated access (its L1 entry, its location
// record); with std::unordered_map those lookups were a third of a long run's time, mostly cache
// misses chasing nodes. This is open addressing with linear probing and backward-shift deletion
// (no tombstones, so long runs of inserts and erases do not degrade), keys hashed by a Fibonacci
// multiply because addresses are aligned and their low bits carry nothing. Nothing iterates it:
// the model keeps its own insertion-ordered vectors, so replay never depends on this layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace canopy::emu {

class address_map {
  public:
    static constexpr std::size_t npos = ~std::size_t{0};

    /// The value stored for `key`, or npos.
    std::size_t find(std::uintptr_t key) const {
        if (size_ == 0) {
            return npos;
        }
        for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
            const slot& s = slots_[i];
            if (s.key == key && s.used) {
                return s.value;
            }
            if (!s.used) {
                return npos;
            }
        }
    }

    /// Sets key's value (inserting it when absent). Returns true when it was inserted.
    bool set(std::uintptr_t key, std::size_t value) {
        if ((size_ + 1) * 4 > slots_.size() * 3) {
            grow();
        }
        for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
            slot& s = slots_[i];
            if (!s.used) {
                s = slot{key, value, true};
                ++size_;
                return true;
            }
            if (s.key == key) {
                s.value = value;
                return false;
            }
        }
    }

    /// Inserts key with `value` unless present; returns the value stored afterwards.
    std::size_t emplace(std::uintptr_t key, std::size_t value) {
        const std::size_t v = find(key);
        if (v != npos) {
            return v;
        }
        set(key, value);
        return value;
    }

    /// Removes key if present (backward-shift: later members of its probe run move up).
    void erase(std::uintptr_t key) {
        if (size_ == 0) {
            return;
        }
        std::size_t i = slot_of(key);
        for (;; i = (i + 1) & mask_) {
            if (!slots_[i].used) {
                return;
            }
            if (slots_[i].key == key) {
                break;
            }
        }
        for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
            if (!slots_[j].used) {
                break;
            }
            // Move j into the hole at i when its home is not inside (i, j] cyclically.
            const std::size_t home = slot_of(slots_[j].key);
            const bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!between) {
                slots_[i] = slots_[j];
                i = j;
            }
        }
        slots_[i].used = false;
        --size_;
    }

    void clear() {
        for (auto& s : slots_) {
            s.used = false;
        }
        size_ = 0;
    }

    std::size_t size() const { return size_; }

  private:
    struct slot {
        std::uintptr_t key = 0;
        std::size_t value = 0;
        bool used = false;
    };

    std::size_t slot_of(std::uintptr_t key) const {
        return static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ULL) >> shift_);
    }

    void grow() {
        std::vector<slot> old = std::move(slots_);
        const std::size_t n = old.empty() ? 64 : old.size() * 2;
        slots_.assign(n, slot{});
        mask_ = n - 1;
        shift_ = 64;
        for (std::size_t k = n; k > 1; k >>= 1) {
            --shift_;
        }
        size_ = 0;
        for (const auto& s : old) {
            if (s.used) {
                set(s.key, s.value);
            }
        }
    }

    std::vector<slot> slots_;
    std::size_t size_ = 0;
    std::size_t mask_ = 0;
    unsigned shift_ = 64;
};

} // namespace canopy::emu
