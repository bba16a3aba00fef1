/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pmvp platform's system-control device (docs/FIRMWARE.md): 32-bit
 * registers, banked per PE, except TIME (64 bits, or two 32-bit halves).
 */
#ifndef PMVP_FW_SYSCTL_H
#define PMVP_FW_SYSCTL_H

#define SYSCTL_BASE 0x0A000000ul
#define SYSCTL_CONSOLE 0x00        /* W: one character to this PE's console */
#define SYSCTL_EXIT 0x04           /* W: exit status; this PE stops */
#define SYSCTL_PE 0x08             /* R: this PE among those running the image */
#define SYSCTL_NUM_PES 0x0C        /* R: the PEs running the image */
#define SYSCTL_THREAD 0x10         /* R: this PE's thread in its core */
#define SYSCTL_CORE_HZ 0x14        /* R: the core's clock now, Hz */
#define SYSCTL_CPI 0x18            /* R: processor cycles per instruction */
#define SYSCTL_SYSCNT_HZ 0x1C      /* R: the System Counter's frequency, Hz */
#define SYSCTL_IRQ_STATUS 0x20     /* R: bit 0 PMUIRQ, bit 1 doorbell */
#define SYSCTL_IRQ_ENABLE 0x24     /* RW: the same bits */
#define SYSCTL_DOORBELL_SET 0x28   /* W: ring the doorbell of PE <value> (of the image) */
#define SYSCTL_DOORBELL_CLEAR 0x2C /* W: clear this PE's doorbell */
#define SYSCTL_THREADS 0x30        /* R: threads per core */
#define SYSCTL_WFX 0x34            /* R: the core's WFx choices (RT_WFX_*) */
#define SYSCTL_SOC_PE 0x38         /* R: this PE in the SoC: its frames are PMU_FRAME(this) */
#define SYSCTL_SOC_PES 0x3C        /* R: the PEs of the SoC, whatever their CPU model */
#define SYSCTL_TIME 0x40           /* R: the instant of this access, ps (64 bits) */
#define SYSCTL_SELECT 0x48         /* RW: a PE of the SoC, described by the next two */
#define SYSCTL_SELECTED_MODEL 0x4C /* R: its CPU model (SYSCTL_MODEL_*) */
#define SYSCTL_SELECTED_HZ 0x50    /* R: its core's clock now, Hz */

#define SYSCTL_MODEL_ANALYTIC 0u
#define SYSCTL_MODEL_ISS 1u
#define SYSCTL_NO_SUCH_PE 0xFFFFFFFFu

#endif
