/** cpkit.h: includes every public cpkit header. @file */
#ifndef CPKIT_H
#define CPKIT_H
#include <cpkit/version.h>
#include <cpkit/errors.h>
#include <cpkit/util.h>
#include <cpkit/matrix.h>
#include <cpkit/problem.h>
#include <cpkit/result.h>
#include <cpkit/settings.h>
#include <cpkit/solver.h>
#include <cpkit/linsys.h>
#include <cpkit/parallel.h>
#include <cpkit/rows.h>
#include <cpkit/io.h>
#include <cpkit/contact.h>
#include <cpkit/fclib.h>
#include <cpkit/check.h>
#include <cpkit/sim.h>
#include <cpkit/implicit.h>
#include <cpkit/impact.h>
#endif
