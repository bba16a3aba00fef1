// SPDX-License-Identifier: Apache-2.0
//
// pmvp-soc's --vcd: the monitors' traced signals to a VCD file, a GTKWave
// save file beside it, and the values at the end of the run.
#pragma once

#include <string>
#include <vector>

#include <systemc>

#include "options.h"
#include "soc.h"

namespace pmvp::soc {

// The file name SystemC is given for a VCD: without its extension, which it adds.
std::string vcd_base(const std::string &path);

// --vcd: the counters, PMUIRQ and WFx of every core to a VCD file (and a
// GTKWave save file beside it), which stops growing past --vcd-limit.
class VcdTrace {
public:
    VcdTrace(const Options &o, Soc &soc) : o_(o), soc_(soc) {}
    ~VcdTrace()
    {
        if (file_)
            sc_core::sc_close_vcd_trace_file(file_);
    }
    // Opens the file and names the traced signals; false if the GTKWave
    // file cannot be written.
    bool open(const Scenario &s);
    // Called as the run goes: stops tracing past the size limit.
    void watch();
    // Closes the file, with the values at the end of the run; false if they
    // cannot be added.
    bool close();

private:
    std::string vcd() const { return vcd_base(o_.vcd_path) + ".vcd"; }
    const Options &o_;
    Soc &soc_;
    sc_core::sc_trace_file *file_ = nullptr;
    std::vector<pmvp::sc::Monitors::TracedSignal> signals_;
    bool capped_ = false;
};

}  // namespace pmvp::soc
