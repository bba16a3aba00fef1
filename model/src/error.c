/* SPDX-License-Identifier: Apache-2.0 */
#include "pmvp/error.h"

const char *pmvp_strerror(int err)
{
    switch (err) {
    case PMVP_OK: return "success";
    case PMVP_ERR_NULL: return "required pointer argument is NULL";
    case PMVP_ERR_PAST: return "time is earlier than the core's latest call";
    case PMVP_ERR_PE: return "PE index out of range";
    case PMVP_ERR_COUNTER: return "event counter index out of range";
    case PMVP_ERR_CONFIG: return "invalid or unsupported configuration";
    case PMVP_ERR_EVENT: return "event not supported or not reportable this way";
    case PMVP_ERR_REGISTER: return "unknown register";
    case PMVP_ERR_PE_OFF: return "PE is powered off";
    case PMVP_ERR_VALUE: return "argument value out of range";
    case PMVP_ERR_READ_ONLY: return "register is read-only";
    case PMVP_ERR_WRITE_ONLY: return "register is write-only";
    case PMVP_ERR_ADDRESS: return "offset outside the register frame";
    case PMVP_ERR_SIZE: return "unsupported access size or alignment";
    case PMVP_ERR_LOCKED: return "external access refused: OS Lock or OS Double Lock";
    case PMVP_ERR_DENIED: return "external access refused by the authentication interface";
    case PMVP_ERR_GP: return "general-protection fault: unknown MSR, reserved bit or privilege";
    case PMVP_ERR_CHECKPOINT: return "checkpoint truncated, corrupt, of another version or of another configuration";
    default: return "unknown error";
    }
}
