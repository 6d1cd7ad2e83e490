#ifndef OHK_CARCHIVE_SHIM_H
#define OHK_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
