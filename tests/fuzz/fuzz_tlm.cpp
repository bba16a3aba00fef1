// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the TLM transport paths of pmvp::sc::Monitors, with any
// payload (command, address, length, streaming width, byte enables, a data
// pointer or none, extension) and any annotated delay. Invariants
// (tests/fuzz/README.md): no crash; the response is one the bindings
// document; an error response leaves the kernel byte for byte as it was.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>
#include <systemc>
#include <tlm>

#include "pmvp/systemc/monitors.h"

namespace {

pmvp::sc::Monitors *monitors;

[[noreturn]] void broken(const char *what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

}  // namespace

// The library's main is libFuzzer's; SystemC still asks for an sc_main.
int sc_main(int, char **)
{
    return 0;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
    sc_core::sc_report_handler::set_actions("pmvp/guest", sc_core::SC_DO_NOTHING);
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = 2;
    monitors = new pmvp::sc::Monitors("monitors", cfg);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzedDataProvider in(data, size);
    static pmvp_core before, before_now;
    while (in.remaining_bytes() > 0) {
        unsigned pe = in.ConsumeIntegralInRange<unsigned>(0, 1);
        bool amu = in.ConsumeBool(), debug = in.ConsumeIntegralInRange<int>(0, 3) == 0;
        auto &socket = amu ? monitors->amu_socket[pe] : monitors->pmu_socket[pe];
        tlm::tlm_generic_payload gp;
        unsigned char buffer[16] = {};
        std::vector<unsigned char> be = in.ConsumeBytes<unsigned char>(in.ConsumeIntegralInRange<size_t>(0, 9));
        gp.set_command(in.PickValueInArray({ tlm::TLM_READ_COMMAND, tlm::TLM_WRITE_COMMAND, tlm::TLM_IGNORE_COMMAND }));
        gp.set_address(in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 0x1003)
                                        : in.ConsumeIntegral<uint64_t>());
        unsigned len = in.PickValueInArray({ 0u, 1u, 2u, 4u, 8u, 16u });
        gp.set_data_length(len);
        gp.set_streaming_width(in.ConsumeBool() ? len : in.ConsumeIntegralInRange<unsigned>(0, 16));
        for (unsigned char &b : buffer)
            b = in.ConsumeIntegral<unsigned char>();
        gp.set_data_ptr(in.ConsumeIntegralInRange<int>(0, 7) == 0 ? nullptr : buffer);
        if (!be.empty()) {
            gp.set_byte_enable_ptr(be.data());
            gp.set_byte_enable_length((unsigned)be.size());
        }
        pmvp::sc::AccessExtension ext({ in.ConsumeIntegralInRange<uint8_t>(0, 4), in.ConsumeBool() });
        bool with_ext = in.ConsumeBool();
        if (with_ext)
            gp.set_extension(&ext);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        // Mostly within a microsecond; sometimes anywhere up to the end of time.
        sc_core::sc_time delay = sc_core::sc_time::from_value(in.ConsumeIntegralInRange<int>(0, 15)
                                                                  ? in.ConsumeIntegralInRange<uint64_t>(0, 1000000)
                                                                  : in.ConsumeIntegral<uint64_t>());
        std::memcpy(&before, &monitors->kernel(), sizeof before);
        // A quarter of the others nonblocking, mostly at BEGIN_REQ; another
        // phase finds no transaction in flight (an error response).
        bool nonblocking = !debug && in.ConsumeIntegralInRange<int>(0, 3) == 0;
        if (debug) {
            socket.get_base_interface().transport_dbg(gp);
        } else if (nonblocking) {
            tlm::tlm_phase phase = in.ConsumeIntegralInRange<int>(0, 3) ? tlm::BEGIN_REQ : tlm::END_RESP;
            if (socket.get_base_interface().nb_transport_fw(gp, phase, delay) != tlm::TLM_COMPLETED)
                broken("a nonblocking request that did not complete in the call");
        } else {
            socket.get_base_interface().b_transport(gp, delay);
        }
        if (with_ext)
            gp.clear_extension(&ext);
        switch (gp.get_response_status()) {
        case tlm::TLM_OK_RESPONSE: break;
        case tlm::TLM_GENERIC_ERROR_RESPONSE:
        case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        case tlm::TLM_BURST_ERROR_RESPONSE:
        case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE:
            // Nothing changed, but that a read now brings the kernel to now
            // first (Timeline::look), which changes no count. Time is in ps:
            // the default resolution.
            std::memcpy(&before_now, &before, sizeof before);
            (void)pmvp_core_sync(&before_now, sc_core::sc_time_stamp().value());
            if (std::memcmp(&before, &monitors->kernel(), sizeof before) != 0 &&
                std::memcmp(&before_now, &monitors->kernel(), sizeof before) != 0)
                broken("an access with an error response changed the kernel");
            break;
        default: broken("a response the bindings do not document");
        }
    }
    // Time moves on between inputs, so changes kept for later are applied.
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
    return 0;
}
