#ifndef OHK_CEXPAT_SHIM_H
#define OHK_CEXPAT_SHIM_H
#include <expat.h>
#endif
