/* Compiled as C99 and as C++17 with every warning as an error: the
 * installed header must be clean for both, its _INIT macros included. */
#include "openhealthkit.h"

int main(void)
{
    ohk_store_options o, by_macro = OHK_STORE_OPTIONS_INIT;
    ohk_statistics_options s = OHK_STATISTICS_OPTIONS_INIT;
    ohk_query_options q = OHK_QUERY_OPTIONS_INIT;
    ohk_sync_options y = OHK_SYNC_OPTIONS_INIT;
    q.statistics = &s;
    if (ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION) != OHK_OK || o.version != by_macro.version)
        return 1;
    if (q.statistics->version != OHK_STATISTICS_OPTIONS_VERSION || y.version != OHK_SYNC_OPTIONS_VERSION)
        return 1;
    return ohk_abi_version() == OHK_ABI_VERSION ? 0 : 1;
}
