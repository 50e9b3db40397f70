/* SPDX-License-Identifier: GPL-2.0 */
/* nkctl doctor's checks of a pod's leases, NIC side and bindings (doctornic.c). */
#ifndef NKCTL_DOCTORNIC_H
#define NKCTL_DOCTORNIC_H

#include "doctor/doctorpod.h"

void dr_check_leases(struct dr_report *r, struct dr_pod *p);
void dr_check_nic_side(struct dr_report *r, struct dr_pod *p);
void dr_check_bindings(struct dr_report *r, struct dr_pod *p);

#endif
