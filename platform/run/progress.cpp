// SPDX-License-Identifier: Apache-2.0
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include "progress.h"

#include <csignal>
#include <memory>

#include <systemc>

namespace pmvp::soc {

namespace {

volatile std::sig_atomic_t interrupt_signal = 0;

extern "C" void on_interrupt(int)
{
    interrupt_signal = 1;
}

}  // namespace

void catch_interrupts(bool on)
{
    std::signal(SIGINT, on ? on_interrupt : SIG_DFL);
}

bool interrupt_requested()
{
    return interrupt_signal != 0;
}

void spawn_watch(uint64_t start, uint64_t end)
{
    auto shown = std::make_shared<Progress>(start, end, share_of_simulated_time(end));
    sc_core::sc_spawn(
        [shown, start, end] {
            const uint64_t step = std::max<uint64_t>(1, end / 1000);
            for (uint64_t t = (start / step + 1) * step; t < end; t += step) {
                sc_core::wait(sc_core::sc_time::from_value(t) - sc_core::sc_time_stamp());
                if (interrupt_requested()) {
                    sc_core::sc_stop();
                    return;
                }
                shown->at(t);
            }
        },
        "watch");
}

}  // namespace pmvp::soc
