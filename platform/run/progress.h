// SPDX-License-Identifier: Apache-2.0
//
// Progress of a long piece of work on stderr, once it has taken two seconds
// of host time, with an estimate of the time left at the pace so far:
// rewritten in place on a terminal, a line every tenth in a log.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include <unistd.h>

namespace pmvp::soc {

class Progress {
public:
    // The work runs from `start` to `end` units (picoseconds of simulated
    // time, cores replayed, ...); `what(done)` says where it is ("42% of
    // simulated time").
    Progress(uint64_t start, uint64_t end, std::function<std::string(uint64_t)> what)
        : start_(start), end_(end), what_(std::move(what)), began_(std::chrono::steady_clock::now()), tty_(isatty(2))
    {}
    ~Progress()
    {
        if (tty_ && shown_ >= 0)
            std::fprintf(stderr, "\r%78s\r", "");
    }
    Progress(const Progress &) = delete;
    Progress &operator=(const Progress &) = delete;

    // The work has reached `done`.
    void at(uint64_t done)
    {
        if (done <= start_ || done >= end_)
            return;
        double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
        double share = (double)(done - start_) / (double)(end_ - start_);
        int percent = (int)(100 * share);
        if (host < 2.0 || percent == shown_ || (!tty_ && percent / 10 == shown_ / 10))
            return;
        std::fprintf(stderr,
                     tty_ ? "\rpmvp-soc: %s, %.0f s, about %.0f s left " : "pmvp-soc: %s, %.0f s, about %.0f s left\n",
                     what_(done).c_str(), host, host * (1 - share) / share);
        shown_ = percent;
    }

private:
    const uint64_t start_, end_;
    const std::function<std::string(uint64_t)> what_;
    const std::chrono::steady_clock::time_point began_;
    const bool tty_;
    int shown_ = -10;  // the percentage last shown
};

// Where a run ending at `end` is in its simulated time: "42% of simulated time".
inline std::function<std::string(uint64_t)> share_of_simulated_time(uint64_t end)
{
    return [end](uint64_t t) { return std::to_string((int)(100.0 * (double)t / (double)end)) + "% of simulated time"; };
}

// SIGINT (Ctrl-C) asks a run to end where it is, with a report of what it
// counted: catch_interrupts(true) installs the handler (false restores the
// default), interrupt_requested() says whether one came.
void catch_interrupts(bool on);
bool interrupt_requested();

// A process that, every thousandth of a run's simulated time from `start`
// (a restored run's checkpoint) to `end`, stops the simulation there if an
// interrupt was requested and shows the run's progress: for the platforms
// with no watch of their own (x86, SEBEP). Before sc_start.
void spawn_watch(uint64_t start, uint64_t end);

}  // namespace pmvp::soc
