// SPDX-License-Identifier: Apache-2.0
//
// pmvp-soc's checkpoint (docs/PMVP-SOC.md, "Checkpoint and restore"): the
// run that was saved (its scenario text and command-line overrides, so a
// restore needs nothing else), the instant, then each component's state.
// Each component lists its fields once, in a state(Archive &) function that
// both writes them (Saver) and reads them back (Loader).
//
// The file, integers little-endian (pmvp/systemc/bytes.h):
//   "PMVPSOC2"        8 bytes (the 2 is the format's version)
//   fields            each integer a u64, a double by its bits, text and
//                     byte strings as a u64 length then the bytes
//   checksum          u64 FNV-1a of every byte before it
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <systemc>

#include "pmvp/systemc/bytes.h"

extern "C" {
#include "pmvp/clock.h"
}

namespace pmvp::soc {

// A checkpoint that cannot be used: the message says why (and names the
// field where the file ends too soon or disagrees with the scenario).
struct CheckpointError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Saver {
public:
    static constexpr bool loading = false;

    template <class T> void operator()(const char *, const T &v)
    {
        static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "a field is an integer, a flag or an enum");
        pmvp::sc::put_u64(bytes_, (uint64_t)v);
    }
    void operator()(const char *, const double &v)
    {
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        pmvp::sc::put_u64(bytes_, bits);
    }
    void operator()(const char *, const std::string &v) { raw(v.data(), v.size()); }
    void operator()(const char *, const std::vector<uint8_t> &v) { raw(v.data(), v.size()); }
    template <class T> void operator()(const char *what, const std::vector<T> &v)
    {
        pmvp::sc::put_u64(bytes_, v.size());
        for (const T &x : v)
            (*this)(what, x);
    }
    // A number the scenario fixes (PEs, counters): written, and checked on load.
    void count(const char *what, uint64_t n) { (*this)(what, n); }
    // An index into something of `limit` elements: written, and checked on load.
    template <class T> void below(const char *what, const T &v, uint64_t) { (*this)(what, v); }
    // A signal's level: its value now.
    template <class T> void signal(const char *what, sc_core::sc_signal<T> &s) { (*this)(what, s.read()); }
    // An instant a process waits for: checked on load.
    void not_before(const char *, pmvp_time, pmvp_time) {}

    // The file: the tag, the fields, the checksum.
    std::vector<uint8_t> file() const;

private:
    void raw(const void *p, size_t n)
    {
        pmvp::sc::put_u64(bytes_, n);
        bytes_.insert(bytes_.end(), (const uint8_t *)p, (const uint8_t *)p + n);
    }
    std::vector<uint8_t> bytes_;
};

class Loader {
public:
    static constexpr bool loading = true;
    // Checks the tag and the checksum of a whole file; throws CheckpointError.
    explicit Loader(std::vector<uint8_t> file);

    template <class T> void operator()(const char *what, T &v)
    {
        static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "a field is an integer, a flag or an enum");
        uint64_t x = u64(what);
        if constexpr (std::is_same_v<T, bool>) {
            if (x > 1)
                bad(what, "is not 0 or 1");
        } else if ((uint64_t)(T)x != x) {
            bad(what, "is out of range");
        }
        v = (T)x;
    }
    void operator()(const char *what, double &v)
    {
        uint64_t bits = u64(what);
        std::memcpy(&v, &bits, 8);
    }
    void operator()(const char *what, std::string &v)
    {
        size_t n = length(what, 1);
        v.assign((const char *)&file_[at_], n);
        at_ += n;
    }
    void operator()(const char *what, std::vector<uint8_t> &v)
    {
        size_t n = length(what, 1);
        v.assign(&file_[at_], &file_[at_] + n);
        at_ += n;
    }
    template <class T> void operator()(const char *what, std::vector<T> &v)
    {
        v.resize(length(what, 8));
        for (T &x : v)
            (*this)(what, x);
    }
    void count(const char *what, uint64_t n)
    {
        uint64_t saved = u64(what);
        if (saved != n)
            throw CheckpointError("the checkpoint has " + std::to_string(saved) + " " + what + " where the run has " +
                                  std::to_string(n));
    }
    template <class T> void below(const char *what, T &v, uint64_t limit)
    {
        (*this)(what, v);
        if ((uint64_t)v >= limit)
            bad(what, ("is " + std::to_string((uint64_t)v) + ", not below " + std::to_string(limit)).c_str());
    }
    template <class T> void signal(const char *what, sc_core::sc_signal<T> &s)
    {
        T v{};
        (*this)(what, v);
        s.write(v);
    }
    // An instant a process waits for (a field already read) must not lie
    // before the checkpoint's own.
    void not_before(const char *what, pmvp_time t, pmvp_time checkpoint) const
    {
        if (t < checkpoint)
            throw CheckpointError(std::string("the checkpoint's field ") + what + " is " + std::to_string(t) +
                                  " ps, before the checkpoint's instant, " + std::to_string(checkpoint) + " ps");
    }
    // Throws unless every field was read.
    void end() const;

private:
    uint64_t u64(const char *what);
    // A length prefix, checked against what is left (`unit` bytes per element).
    size_t length(const char *what, size_t unit);
    [[noreturn]] void bad(const char *what, const char *how) const;
    std::vector<uint8_t> file_;
    size_t at_ = 8, end_ = 0;  // the fields lie in [8, end_)
};

// A SystemC module's state (Monitors, X86Monitors) as a field: saved from
// the module; loaded into `kept`, which restore_monitors gives the module
// when simulated time reaches the checkpoint's instant.
template <class M> void monitors_field(Saver &a, M &monitors, std::vector<uint8_t> &)
{
    a("monitors", monitors.save());
}
template <class M> void monitors_field(Loader &a, M &monitors, std::vector<uint8_t> &kept)
{
    a("monitors", kept);
    try {  // refused before the run to the checkpoint's instant, not at it
        monitors.check_restore(kept);
    } catch (const std::invalid_argument &e) {
        throw CheckpointError(e.what());
    }
}
template <class M> void restore_monitors(M &monitors, std::vector<uint8_t> &kept)
{
    try {
        monitors.restore(kept);
    } catch (const std::invalid_argument &e) {
        throw CheckpointError(e.what());
    }
    kept.clear();
}

// A platform pmvp-soc can checkpoint.
class Checkpointed {
public:
    virtual ~Checkpointed() = default;
    // The state of every component, the simulation paused between two
    // instants (no process in the middle of one); throws CheckpointError
    // when there is no state to save (the run ended).
    virtual void save(Saver &a) = 0;
    // Before the simulation starts: every component takes the state it had
    // at the checkpoint's instant, and its processes wait for that instant.
    virtual void load(Loader &a) = 0;
    // At the checkpoint's instant: the monitors take theirs.
    virtual void restore_monitors() = 0;
};

// What a run does with checkpoints.
struct CheckpointPlan {
    Loader *resume = nullptr;  // the checkpoint to go on from (its header read)
    pmvp_time resume_at = 0;   // its instant
    pmvp_time save_at = 0;     // 0: save none
    std::string save_path;
    std::function<void(Saver &)> header;  // writes what the restored run needs first
};

// Runs the simulation to its end (sc_start), restoring and saving on the
// way as `plan` says. Throws CheckpointError.
void simulate(Checkpointed &platform, const CheckpointPlan &plan);

// The whole file at `path`; throws CheckpointError naming it if it cannot be read.
std::vector<uint8_t> read_file(const std::string &path);
// Writes it; throws CheckpointError naming it if it cannot be written.
void write_file(const std::string &path, const std::vector<uint8_t> &bytes);

}  // namespace pmvp::soc
