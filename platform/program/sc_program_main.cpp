// SPDX-License-Identifier: Apache-2.0
// The entry point of pmvp's SystemC programs (pmvp-soc, pmvp-bench-clocked):
// linked into each as an object, so each defines only sc_main.
#include <cstdlib>

#include <systemc>

// SystemC prints its banner before sc_main runs, unless told not to.
int main(int argc, char **argv)
{
    setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}
