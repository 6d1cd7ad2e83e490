/* Compiled as C99 and as C++17 with every warning as an error: the
 * installed header must be clean for both. */
#include "openhealthkit.h"

int main(void)
{
    ohk_store_options o;
    return ohk_store_options_init(&o) == OHK_OK && ohk_abi_version() == OHK_ABI_VERSION ? 0 : 1;
}
