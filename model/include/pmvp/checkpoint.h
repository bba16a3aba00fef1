/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checkpoint and restore of a core (Arm or x86): its architectural state and inputs
 * (registers, counters, controls, context, levels, clocks, the present),
 * not its caches, which a restore rebuilds.
 *
 * The format is byte-order independent and versioned:
 *   "PMVPCKPT"                    8 bytes
 *   format version                u32, little-endian (PMVP_CHECKPOINT_VERSION)
 *   configuration fingerprint     u64, little-endian: a hash of every
 *                                 configuration field the state depends on
 *   payload length in bytes       u64, little-endian
 *   payload                       each state field as a u64, little-endian,
 *                                 in a fixed order (model/src/checkpoint.c)
 *   checksum                      u64, little-endian: FNV-1a of all bytes before
 * A restore refuses a checkpoint that is truncated, corrupt, of another
 * version or of another configuration (PMVP_ERR_CHECKPOINT, with why) and
 * then changes nothing.
 */
#ifndef PMVP_CHECKPOINT_H
#define PMVP_CHECKPOINT_H

#include <stddef.h>

#include "pmvp/core.h"
#include "pmvp/x86.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

#define PMVP_CHECKPOINT_VERSION 6u

/* The size in bytes of a checkpoint of `core` (it depends on the
 * configuration only). 0 for NULL. */
size_t pmvp_core_checkpoint_size(const pmvp_core *core);

/* Writes the checkpoint of `core` to buf[0..size). PMVP_ERR_NULL;
 * PMVP_ERR_SIZE when size is below pmvp_core_checkpoint_size(core). */
int pmvp_core_save(const pmvp_core *core, void *buf, size_t size);

/* Restores `core`, initialised (pmvp_core_init) with the configuration of
 * the core that was saved, to the checkpoint in buf[0..size): afterwards it
 * behaves, call for call, as the saved core would have. PMVP_ERR_NULL;
 * PMVP_ERR_CHECKPOINT, with *why (when `why` is not NULL) saying what is
 * wrong, and `core` unchanged. */
int pmvp_core_restore(pmvp_core *core, const void *buf, size_t size, const char **why);

/* The same for an x86 core (pmvp/x86.h). */
size_t pmvp_x86_checkpoint_size(const pmvp_x86_core *core);
int pmvp_x86_save(const pmvp_x86_core *core, void *buf, size_t size);
int pmvp_x86_restore(pmvp_x86_core *core, const void *buf, size_t size, const char **why);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
