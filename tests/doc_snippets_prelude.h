// The names docs/INTEGRATION.md's snippets assume, as its prose introduces
// them (the platform's router, the CPU model's local time offset and the
// values it moves): declared here so that each snippet compiles as written.
#include <cstdint>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "pmvp/systemc/monitors.h"

namespace doc {
struct Router : sc_core::sc_module {
    sc_core::sc_vector<tlm_utils::simple_initiator_socket<Router>> initiator_socket;
};
extern Router router;
extern unsigned k;
extern pmvp::sc::Monitors monitors;
extern sc_core::sc_time local_offset, stretch_start_offset;  // where the stretch of a batch began
extern uint64_t value, pc;
extern pmvp_pmu_controls controls;
void take_pmu_exception();
}  // namespace doc
using namespace doc;
