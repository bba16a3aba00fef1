// SPDX-License-Identifier: Apache-2.0
//
// pmvp-difftest [--seed S] [--count N]: runs N differential scenarios
// (default 10000) with seeds S, S+1, ... and stops at the first divergence,
// printing the seed that replays it.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "differential.h"

int main(int argc, char **argv)
{
    unsigned long long seed = 1, count = 10000;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 0);
        else if (!std::strcmp(argv[i], "--count") && i + 1 < argc)
            count = std::strtoull(argv[++i], nullptr, 0);
        else {
            std::fprintf(stderr, "usage: %s [--seed S] [--count N]\n", argv[0]);
            return 2;
        }
    }
    unsigned long long checks = 0, frozen = 0;
    for (unsigned long long i = 0; i < count; i++) {
        pmvp::ref::ScenarioResult r = pmvp::ref::run_scenario(seed + i);
        checks += r.checks;
        frozen += r.frozen;
        if (!r.ok) {
            std::printf("FAIL after %llu scenarios: %s\n", i, r.failure.c_str());
            return 1;
        }
        if ((i + 1) % 100000 == 0)
            std::fprintf(stderr, "%llu scenarios, %llu comparisons\n", i + 1, checks);
    }
    std::printf("%llu scenarios from seed %llu: kernel and reference agree on %llu comparisons "
                "(%llu check points with counters frozen on overflow)\n",
                count, seed, checks, frozen);
    return 0;
}
