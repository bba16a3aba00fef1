/* SPDX-License-Identifier: Apache-2.0 */
/* pmvp error codes: every kernel entry point returns PMVP_OK or one of these
 * (negative) values, and leaves its state untouched when it fails. */
#ifndef PMVP_ERROR_H
#define PMVP_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

enum pmvp_error {
    PMVP_OK = 0,
    PMVP_ERR_NULL = -1,        /* a required pointer argument is NULL */
    PMVP_ERR_PAST = -2,        /* `now` is earlier than the core's latest call */
    PMVP_ERR_PE = -3,          /* PE index out of range for this core */
    PMVP_ERR_COUNTER = -4,     /* event counter index out of range */
    PMVP_ERR_CONFIG = -5,      /* the configuration is impossible or unsupported */
    PMVP_ERR_EVENT = -6,       /* event number not supported, or not reportable this way */
    PMVP_ERR_REGISTER = -7,    /* unknown register identifier */
    PMVP_ERR_PE_OFF = -8,      /* the PE (its Core power domain) is powered off */
    PMVP_ERR_VALUE = -9,       /* an argument value is out of its documented range */
    PMVP_ERR_READ_ONLY = -10,  /* write to a register that has no writable view */
    PMVP_ERR_WRITE_ONLY = -11, /* read of a register that has no readable view */
    PMVP_ERR_ADDRESS = -12,    /* offset outside the 4 KiB register frame */
    PMVP_ERR_SIZE = -13,       /* access size or alignment the frame does not support there */
    PMVP_ERR_LOCKED = -14,     /* external access refused: OS Lock or OS Double Lock */
    PMVP_ERR_DENIED = -15,     /* external access refused by the authentication interface */
    PMVP_ERR_GP = -16,         /* x86: the access raises #GP(0) (unknown MSR, reserved bit, privilege) */
    PMVP_ERR_CHECKPOINT = -17  /* a checkpoint truncated, corrupt, of another version or configuration */
};

/* A static, human-readable description of `err` (never NULL). */
const char *pmvp_strerror(int err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
