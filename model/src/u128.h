/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: the 128-bit unsigned integer used for exact intermediates.
 * GCC and Clang provide it on every 64-bit target; __extension__ keeps
 * -pedantic builds quiet about it. */
#ifndef PMVP_U128_H
#define PMVP_U128_H

__extension__ typedef unsigned __int128 pmvp_u128;

#endif
