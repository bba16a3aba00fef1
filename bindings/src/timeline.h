// SPDX-License-Identifier: Apache-2.0
//
// The policy of both modules for calls made ahead of simulated time, and
// the inputs they keep for later instants (Timeline), with the kernel
// calls it makes itself (KernelCalls). Private to the bindings: a module
// holds its Timeline through a pointer, so that none of this is in the
// installed headers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "input_codec.h"
#include "pmvp/systemc/bytes.h"
#include "pmvp/systemc/support.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/core.h"
#include "pmvp/error.h"
#include "pmvp/x86.h"
}

namespace pmvp::sc {

// The one policy of both modules for calls made ahead of simulated time (a
// CPU model running in a quantum, a bus access with a delay):
// - the kernel (`present`) never runs ahead of simulated time;
// - a change for a later instant is kept, as the module's typed input
//   (Module::Input, which a checkpoint holds by its tag), and applied to
//   the kernel, in time order, when simulated time reaches it (catch_up),
//   so a decoupled initiator's future does not reorder the present of the
//   others. Whether the kernel refuses it is told at once: by the module's
//   `decide` when the kernel's configuration and present decide it and no
//   kept change evaluated on the view could alter that (a report or a level
//   input: nothing is copied), else by making it on the future view;
// - a read for a later instant that the kernel answers as a pure query
//   (look: a register read of either family, an MRS, a bus or debug read
//   of a frame, PMUIRQ; an x86 module has none) is made on the kernel
//   itself when no change is kept for an instant at or before it: nothing
//   is copied and the kernel's present does not move;
// - any other call for a later instant is evaluated on the future view
//   (`view`): the kernel with the kept changes up to that instant applied.
//   The view holds the kernel plus the kept changes up to the instant it
//   has reached, and takes the later ones as it moves on, so a CPU model
//   moving forward through its quantum costs one evaluation per call; a
//   call for an instant before one the view has reached, a change kept
//   before one it holds, or a change of the kernel itself (invalidate)
//   makes it be built again (a copy of the kernel) when next used;
// - a checkpoint holds the kept changes (save, load), and so a module can
//   be saved at any instant, a CPU model ahead of it or not.
// Core is pmvp_core or pmvp_x86_core. Module is the module whose changes
// these are, called directly (no indirection on the path of every change):
//   Module::Input
//       one change, a variant of typed inputs (input_codec.h says what a
//       checkpoint holds of one);
//   int apply(Core *c, pmvp_time t, const Input &in)
//       makes change `in` on core c at instant t;
//   static bool decide(const Core &present, const Input &in, int *err)
//       true, with the kernel's answer in *err, for a change the present
//       kernel's configuration and state decide (whether it will refuse it);
//   void failed(int err)
//       hears of a kept change the kernel refused when it came.

// The kernel's calls a Timeline makes itself (pmvp/core.h, pmvp/x86.h,
// pmvp/checkpoint.h), by kind of core.
template <class Core> struct KernelCalls;
template <> struct KernelCalls<pmvp_core> {
    static void copy(pmvp_core *dst, const pmvp_core *src) { pmvp_core_copy(dst, src); }
    static constexpr auto sync = pmvp_core_sync;
    static constexpr auto size = pmvp_core_checkpoint_size;
    static constexpr auto save = pmvp_core_save;
    static constexpr auto restore = pmvp_core_restore;
};
template <> struct KernelCalls<pmvp_x86_core> {
    static void copy(pmvp_x86_core *dst, const pmvp_x86_core *src) { *dst = *src; }
    static constexpr auto sync = pmvp_x86_sync;
    static constexpr auto size = pmvp_x86_checkpoint_size;
    static constexpr auto save = pmvp_x86_save;
    static constexpr auto restore = pmvp_x86_restore;
};

template <class Core, class Module> class Timeline {
public:
    using Input = typename Module::Input;

    Timeline(Core &present, Core &view, Module &module, const TimeBase &time)
        : present_(present), view_(view), module_(module), time_(time)
    {}

    // Applies, in time order, the changes kept for instants up to now.
    void catch_up() { catch_up(time_.now()); }
    void catch_up(pmvp_time now)
    {
        if (head_ != kept_.size())  // nothing kept: the common case of every access, tested inline
            apply_kept(now);
    }

    // Runs `op`, which changes nothing, at `offset` after now: on the
    // kernel, or on the future view. PMVP_ERR_VALUE for an instant beyond
    // the representable time.
    template <class F> int query(const sc_core::sc_time &offset, const F &op)
    {
        pmvp_time now = time_.now(), t = time_.after(now, offset);
        if (t == PMVP_TIME_NEVER)
            return PMVP_ERR_VALUE;
        catch_up(now);
        if (t != now)
            return op(&future(t), t);
        ++present_epoch_;  // op may change the present (a draw of knob (c), a sync)
        return op(&present_, t);
    }

    // Runs `op`, a pure query of the kernel (it takes a const core and an
    // instant at or after its present), at `offset` after now: on the
    // kernel when no change is kept for an instant at or before it, else on
    // the future view.
    template <class F> int look(const sc_core::sc_time &offset, const F &op)
    {
        pmvp_time now = time_.now(), t = time_.after(now, offset);
        if (t == PMVP_TIME_NEVER)
            return PMVP_ERR_VALUE;
        catch_up(now);
        if (t == now) {
            // A read now brings the kernel to now first (it never runs ahead
            // of simulated time, and where it syncs changes no count), so
            // that the query finds nothing to advance: no copy of a PE.
            (void)KernelCalls<Core>::sync(&present_, now);
            ++present_epoch_;
            return op(&present_, t);
        }
        if (next_pending() > t && !valid_)
            return op(&present_, t);  // nothing kept before t, and no view to bring there
        // The view at t, brought there (it is a scratch kernel: where it
        // syncs changes no count), so that the query finds nothing to
        // advance and copies no PE: a CPU model running ahead reads at
        // later and later instants.
        Core &at = future(t);
        (void)KernelCalls<Core>::sync(&at, t);
        return op(&at, t);
    }

    // Makes change `ch` at `offset` after now: on the kernel, or, for a
    // later instant, on the future view, and kept if the view accepts it.
    // *acts gets the instant the module must act at (publish what changed):
    // now, the kept change's instant, or PMVP_TIME_NEVER (nothing changed).
    int change(const sc_core::sc_time &offset, const Input &ch, pmvp_time *acts)
    {
        return change(time_.now(), offset, ch, acts);
    }
    // The same, for a caller that has read the present instant `now`.
    int change(pmvp_time now, const sc_core::sc_time &offset, const Input &ch, pmvp_time *acts)
    {
        *acts = PMVP_TIME_NEVER;
        pmvp_time t = time_.after(now, offset);
        if (t == PMVP_TIME_NEVER)
            return PMVP_ERR_VALUE;
        catch_up(now);
        if (t == now) {
            valid_ = false;
            ++present_epoch_;
            *acts = now;
            return module_.apply(&present_, now, ch);
        }
        int err = PMVP_OK;
        bool decided = evaluated_ == 0 && Module::decide(present_, ch, &err);
        if (!decided) {
            err = module_.apply(&future(t), t, ch);
            if (err == PMVP_OK)
                in_view_++;  // the view holds every kept change up to t (future), and now this one
        }
        if (err == PMVP_OK) {
            keep(t, ch, decided);
            *acts = t;
        }
        return err;
    }

    bool pending() const { return head_ < kept_.size(); }
    pmvp_time next_pending() const { return pending() ? kept_[head_].t : PMVP_TIME_NEVER; }
    // The instant of the first kept change for which wakes(change) is true.
    template <class P> pmvp_time next_pending(const P &wakes) const
    {
        for (size_t i = head_; i < kept_.size(); i++)
            if (wakes(kept_[i].ch))
                return kept_[i].t;
        return PMVP_TIME_NEVER;
    }
    // The kernel changed other than through change(): the view must be rebuilt.
    void invalidate()
    {
        valid_ = false;
        ++present_epoch_;
    }
    // The module called the kernel's present itself, changing nothing the
    // view needs (a sync, the interrupt lines).
    void touched() { ++present_epoch_; }
    // Advanced by every call that may change the kernel's present: a change
    // made on it, a kept change applied, a query or read made on it,
    // invalidate, touched, clear, restore. A module may keep what the
    // present answered while it stays the same.
    uint64_t present_epoch() const { return present_epoch_; }
    // Forgets the kept changes (a reset replaces the kernel).
    void clear()
    {
        kept_.clear();
        head_ = in_view_ = evaluated_ = 0;
        valid_ = false;
        ++present_epoch_;
    }

    // The module's checkpoint at now: the kernel's, then the kept changes.
    std::vector<uint8_t> checkpoint()
    {
        using K = KernelCalls<Core>;
        catch_up();
        K::sync(&present_, time_.now());
        ++present_epoch_;
        std::vector<uint8_t> buf(K::size(&present_));
        K::save(&present_, buf.data(), buf.size());
        save(buf);
        return buf;
    }

    // Restores what checkpoint() returned, at the simulated instant it was
    // taken: the kernel, then the kept changes. False, with why, and
    // nothing changed, otherwise.
    // Whether the kernel's part of `checkpoint` is one this kernel takes
    // (its configuration, format and invariants), tried on a copy: a
    // platform checks before it runs to the checkpoint's instant.
    bool kernel_takes(const std::vector<uint8_t> &checkpoint, std::string *why) const
    {
        using K = KernelCalls<Core>;
        auto scratch = std::make_unique<Core>();
        K::copy(scratch.get(), &present_);
        const char *refused = nullptr;
        if (int err =
                K::restore(scratch.get(), checkpoint.data(), std::min(checkpoint.size(), K::size(&present_)), &refused))
            return refuse(why, refused ? refused : pmvp_strerror(err));
        return true;
    }

    bool restore(const std::vector<uint8_t> &checkpoint, std::string *why)
    {
        using K = KernelCalls<Core>;
        auto restored = std::make_unique<Core>();
        KernelCalls<Core>::copy(restored.get(), &present_);
        size_t kernel = std::min(checkpoint.size(), K::size(&present_));
        const char *refused = nullptr;
        if (int err = K::restore(restored.get(), checkpoint.data(), kernel, &refused))
            return refuse(why, refused ? refused : pmvp_strerror(err));
        pmvp_time now = time_.now();
        if (restored->last_call != now)
            return refuse(why, "the checkpoint was saved at " + std::to_string(restored->last_call) +
                                   " ps and simulated time is " + std::to_string(now) +
                                   " ps: restore at the instant of the save");
        if (!load(checkpoint.data(), checkpoint.size(), kernel, *restored, why))
            return false;
        KernelCalls<Core>::copy(&present_, restored.get());
        ++present_epoch_;
        return true;
    }

private:
    // The bindings' part of a checkpoint, after the kernel's
    //   (pmvp/checkpoint.h), little-endian:
    //   "PMVPSCB2"                  8 bytes (the 2 is the format's version)
    //   kept changes                u64 count, then for each: u64 instant,
    //                               then the input (input_codec.h: its tag
    //                               and its fields)
    //   checksum                    u64 FNV-1a of the section's bytes before it
    void save(std::vector<uint8_t> &out) const
    {
        size_t start = out.size();
        out.insert(out.end(), kTag, kTag + 8);
        put_u64(out, kept_.size() - head_);
        for (size_t i = head_; i < kept_.size(); i++) {
            const auto &[t, ch, decided] = kept_[i];
            put_u64(out, t);
            codec::write(out, ch);
        }
        put_u64(out, fnv1a(out.data() + start, out.size() - start));
    }

    // Reads what save wrote from in[at..size): the section must end the
    // checkpoint. It replaces the kept changes with those read if each
    // applies, in time order, to `base` (the kernel being restored, at the
    // instant of the save). False, with why, and nothing changed, otherwise.
    // (The interrupt lines need no part: their levels follow from the
    // kernel's state, which its own part holds.)
    bool load(const uint8_t *in, size_t size, size_t at, const Core &base, std::string *why)
    {
        if (at > size || size - at < 8 || std::memcmp(in + at, kTag, 8) != 0)
            return refuse(why, "no part of the SystemC module follows the kernel's (or of another version)");
        if (size - at < 8 + 8 + 8)
            return refuse(why, "the SystemC module's part is truncated");
        uint64_t sum = 0;
        size_t end = size - 8;
        if (!get_u64(in, size, &end, &sum) || sum != fnv1a(in + at, size - 8 - at))
            return refuse(why, "the SystemC module's part is corrupt (checksum)");
        size = size - 8;  // the checksum is read
        at += 8;
        uint64_t n = 0;
        std::vector<Kept> loaded;
        if (!get_u64(in, size, &at, &n) || n > (size - at) / 10)
            return refuse(why, "the kept changes are truncated");
        for (uint64_t k = 0; k < n; k++) {
            uint64_t t = 0;
            if (!get_u64(in, size, &at, &t) || size - at < 2)
                return refuse(why, "the kept changes are truncated");
            Input ch;
            if (const char *bad = codec::read(in, size, &at, &ch))
                return refuse(why, std::string("a kept change ") + bad);
            if (!loaded.empty() && t < loaded.back().t)
                return refuse(why, "the kept changes are not in time order");
            if (t < base.last_call)
                return refuse(why, "a kept change is for an instant before the checkpoint's");
            loaded.emplace_back(t, ch, false);
        }
        if (at != size)
            return refuse(why, "bytes follow the kept changes");
        valid_ = false;
        KernelCalls<Core>::copy(&view_, &base);
        for (const auto &[t, ch, decided] : loaded)
            if (int err = module_.apply(&view_, t, ch))
                return refuse(why, std::string("a kept change for ") + std::to_string(t) +
                                       " ps is refused by the kernel: " + pmvp_strerror(err));
        kept_ = std::move(loaded);
        head_ = 0;
        in_view_ = evaluated_ = kept_.size();
        valid_ = true;  // the view holds the restored kernel and every kept change
        return true;
    }

    // catch_up's work when a change is kept: those for instants up to now,
    // in time order, made on the kernel.
    void apply_kept(pmvp_time now)
    {
        size_t i = head_;
        for (; i < kept_.size() && kept_[i].t <= now; ++i) {
            if (int err = module_.apply(&present_, kept_[i].t, kept_[i].ch))
                module_.failed(err);
            evaluated_ -= !kept_[i].decided;
        }
        size_t done = i - head_;
        if (done == 0)
            return;
        ++present_epoch_;
        // The view holds the kernel plus what it held beyond these.
        if (done <= in_view_)
            in_view_ -= done;
        else
            valid_ = false;
        head_ = i;
        if (head_ == kept_.size()) {
            kept_.clear();
            head_ = 0;
        } else if (head_ >= 64 && head_ * 2 >= kept_.size()) {
            kept_.erase(kept_.begin(), kept_.begin() + (std::ptrdiff_t)head_);
            head_ = 0;
        }
    }

    // Keeps change ch for instant t, after those kept for t or before.
    void keep(pmvp_time t, const Input &ch, bool decided)
    {
        // A CPU model tells its changes in time order: most go at the end.
        auto at = kept_.end();
        if (head_ < kept_.size() && t < kept_.back().t)
            at = std::upper_bound(kept_.begin() + (std::ptrdiff_t)head_, kept_.end(), t,
                                  [](pmvp_time x, const Kept &k) { return x < k.t; });
        // A change the view does not hold, kept before one it holds, leaves
        // the view with a gap.
        if (decided && at < kept_.begin() + (std::ptrdiff_t)(head_ + in_view_))
            valid_ = false;
        kept_.emplace(at, t, ch, decided);  // the change copied once, into its place
        evaluated_ += !decided;
    }

    // The view at instant t: the kernel with the kept changes up to t.
    Core &future(pmvp_time t)
    {
        if (!valid_ || t < view_.last_call) {
            KernelCalls<Core>::copy(&view_, &present_);
            in_view_ = 0;
            valid_ = true;
        }
        size_t i = head_ + in_view_;
        for (; i < kept_.size() && kept_[i].t <= t; ++i)
            module_.apply(&view_, kept_[i].t, kept_[i].ch);
        in_view_ = i - head_;
        return view_;
    }
    static constexpr uint8_t kTag[8] = { 'P', 'M', 'V', 'P', 'S', 'C', 'B', '2' };
    static bool refuse(std::string *why, const std::string &text)
    {
        *why = text;
        return false;
    }

    Core &present_, &view_;
    Module &module_;
    const TimeBase &time_;
    // The kept changes, kept_[head_..] in time order (the ones before head_
    // are applied: their room is reused). `decided`: kept on Module::decide's
    // answer, not evaluated on the view.
    struct Kept {
        Kept(pmvp_time t, const Input &ch, bool decided) : t(t), ch(ch), decided(decided) {}
        pmvp_time t;
        Input ch;
        bool decided;
    };
    std::vector<Kept> kept_;
    size_t head_ = 0;
    // While valid_, the view is the kernel plus kept_[head_, head_ + in_view_).
    size_t in_view_ = 0;
    bool valid_ = false;
    // How many kept changes were evaluated on the view: any may alter what
    // Module::decide reads, so it is asked only while there are none.
    size_t evaluated_ = 0;
    uint64_t present_epoch_ = 0;
};

}  // namespace pmvp::sc
