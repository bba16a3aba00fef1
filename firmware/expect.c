/* SPDX-License-Identifier: Apache-2.0 */
#include "expect.h"

#include "runtime.h"

static unsigned passed, failed;

bool check(bool ok, const char *name, const char *why, uint64_t got, const char *relation, uint64_t want)
{
    if (ok)
        return true;
    rt_puts("  ");
    rt_puts(name);
    rt_puts(": ");
    rt_puts(why);
    rt_puts(": got ");
    rt_put_dec(got);
    rt_puts(", want ");
    rt_puts(relation);
    rt_put_dec(want);
    rt_putc('\n');
    return false;
}

void report(const char *name, bool ok)
{
    rt_puts(ok ? "PASS " : "FAIL ");
    rt_puts(name);
    rt_putc('\n');
    if (ok)
        passed++;
    else
        failed++;
}

int expect_summary(void)
{
    rt_put_dec(passed);
    rt_puts(" passed, ");
    rt_put_dec(failed);
    rt_puts(" failed\n");
    return (int)failed;
}
