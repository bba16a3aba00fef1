// SPDX-License-Identifier: Apache-2.0
//
// The smallest complete platform around pmvp::sc::Monitors, as
// docs/INTEGRATION.md walks through it: one 2-thread SMT core, a
// loosely-timed CPU model reporting retired instructions with local-time
// offsets, a firmware agent programming the PMU over TLM and sampling on
// PMUIRQ, a DVFS step on the frequency signal. It checks what it prints
// against the counts the architecture implies and exits non-zero if any differ.
#include <cstdio>
#include <cstdlib>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "pmvp/systemc/monitors.h"

extern "C" {
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
}

using namespace sc_core;

// A loosely-timed CPU model: each PE retires 1000 instructions per 1 us
// quantum and tells the monitors once per quantum, with the offset of its
// local time, without synchronising.
struct CpuModel : sc_module {
    pmvp::sc::Monitors &monitors;
    SC_HAS_PROCESS(CpuModel);
    CpuModel(const sc_module_name &n, pmvp::sc::Monitors &m) : sc_module(n), monitors(m) { SC_THREAD(run); }
    void run()
    {
        const sc_time quantum(1, SC_US);
        for (int q = 0; q < 2000; q++) {
            for (unsigned pe = 0; pe < monitors.num_pes(); pe++)
                if (monitors.report(pe, PMVP_EV_INST_RETIRED, 1000, quantum) != PMVP_OK)  // at the quantum's end
                    SC_REPORT_ERROR("cpu", "the monitors refused a report");
            wait(quantum);
        }
    }
};

// Firmware on another agent: programs PE 0's counters over the bus, takes
// the overflow interrupt of a sampling counter, and re-arms it.
struct Firmware : sc_module {
    tlm_utils::simple_initiator_socket<Firmware> bus;
    sc_in<bool> pmuirq;
    unsigned samples = 0;
    SC_HAS_PROCESS(Firmware);
    explicit Firmware(const sc_module_name &n) : sc_module(n), bus("bus"), pmuirq("pmuirq")
    {
        SC_THREAD(run);
        SC_METHOD(on_irq);
        sensitive << pmuirq.pos();
        dont_initialize();
    }
    void access(tlm::tlm_command cmd, uint64_t offset, uint64_t &v, unsigned len)
    {
        tlm::tlm_generic_payload gp;
        sc_time delay = SC_ZERO_TIME;
        gp.set_command(cmd);
        gp.set_address(offset);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        bus->b_transport(gp, delay);
        if (gp.is_response_error())
            SC_REPORT_ERROR("firmware", gp.get_response_string().c_str());
    }
    void write(uint64_t offset, uint64_t v, unsigned len = 4) { access(tlm::TLM_WRITE_COMMAND, offset, v, len); }
    uint64_t read(uint64_t offset, unsigned len = 4)
    {
        uint64_t v = 0;
        access(tlm::TLM_READ_COMMAND, offset, v, len);
        return v;
    }
    static constexpr uint64_t kPeriod = 100000;                     // sample every 100000 instructions
    void arm() { write(0x008, (uint64_t(1) << 32) - kPeriod, 8); }  // PMEVCNTR1 overflows at 2^32
    void run()
    {
        write(0x400, PMVP_EV_CPU_CYCLES);    // PMEVTYPER0
        write(0x404, PMVP_EV_INST_RETIRED);  // PMEVTYPER1
        arm();
        write(0xC40, 0x2);               // PMINTENSET: counter 1
        write(0xC00, 0x3 | PMVP_PMU_C);  // PMCNTENSET
        write(0xE04, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC);
        wait(2, SC_MS);
        pmccntr_at_2ms = read(0x0F8, 8);  // PMU.PMCCNTR_EL0, over the bus
    }
    uint64_t pmccntr_at_2ms = 0;
    void on_irq()
    {
        samples++;
        write(0xC80, 0x2);  // PMOVSCLR: the interrupt drops
        arm();
    }
};

int sc_main(int, char **)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = 2;
    cfg.processor_hz = 1000000000;

    sc_signal<uint64_t> cpu_hz("cpu_hz", cfg.processor_hz);
    sc_signal<bool> irq0("irq0"), irq1("irq1");

    pmvp::sc::Monitors monitors("monitors", cfg);
    monitors.processor_hz(cpu_hz);
    monitors.pmuirq[0](irq0);
    monitors.pmuirq[1](irq1);

    CpuModel cpu("cpu", monitors);
    Firmware fw("fw");
    fw.bus.bind(monitors.pmu_socket[0]);  // a router would subtract the frame's base here
    fw.pmuirq(irq0);

    sc_trace_file *vcd = sc_create_vcd_trace_file("minimal_platform");
    monitors.trace(vcd);

    sc_start(1, SC_MS);
    cpu_hz.write(2000000000);  // DVFS step at 1 ms
    sc_start(1001, SC_US);     // past the CPU model's last report, at 2 ms
    sc_close_vcd_trace_file(vcd);

    uint64_t cycles = monitors.peek(0, PMVP_FRAME_PMU, "PMCCNTR_EL0");
    uint64_t cpu_cycles = monitors.peek(0, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 0);
    std::printf("PMCCNTR %llu (%llu at 2 ms), CPU_CYCLES %llu, samples %u\n", (unsigned long long)cycles,
                (unsigned long long)fw.pmccntr_at_2ms, (unsigned long long)cpu_cycles, fw.samples);
    // 1 ms at 1 GHz + 1.001 ms at 2 GHz (1 ms at 2 GHz when the firmware
    // read it); 2,000,000 instructions in 100,000-instruction periods.
    bool ok = cycles == 3002000 && fw.pmccntr_at_2ms == 3000000 && cpu_cycles == 3002000 && fw.samples == 20;
    std::printf("%s\n", ok ? "as the architecture implies" : "UNEXPECTED");
    return ok ? 0 : 1;
}
