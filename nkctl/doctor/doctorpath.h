/* SPDX-License-Identifier: GPL-2.0 */
/* nkctl doctor's checks of a pod's redirects (doctorpath.c). */
#ifndef NKCTL_DOCTORPATH_H
#define NKCTL_DOCTORPATH_H

#include "doctor/doctorpod.h"

void dr_check_egress(struct dr_report *r, struct dr_pod *p);
void dr_check_ingress(struct dr_report *r, struct dr_pod *p);
/* doctor.c */

#endif
