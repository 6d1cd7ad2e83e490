#ifndef OHK_CCRYPTO_SHIM_H
#define OHK_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
