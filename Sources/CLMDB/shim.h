#ifndef OHK_CLMDB_SHIM_H
#define OHK_CLMDB_SHIM_H
#include <lmdb.h>
#endif
