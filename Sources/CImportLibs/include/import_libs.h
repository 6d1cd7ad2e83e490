#ifndef OHK_IMPORT_LIBS_H
#define OHK_IMPORT_LIBS_H
/* The importer's libraries (expat, libarchive, libcrypto) are opened when
 * an import first needs them, not linked: libopenhealthkit.so keeps no
 * dependency beyond LMDB for programs that never import. */

/* Opens the three libraries, once. Returns 0, or -1 with a message naming
 * the missing one and its package in `message` (static storage). */
int ohk_import_libs_load(const char **message);

#endif
