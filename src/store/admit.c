/* admit.c -- the api layer's defaulting and validation, as the store calls it.
 *
 * Every write passes through one function (store__admit_api) so that the
 * store's own tests can replace it with a fake, and so that the store does
 * not depend on which kinds the api layer knows: a kind it does not decode
 * (Pods, Events, Leases) is stored as given. */
#include "store/store_int.h"

int store__admit_api(const struct store_resource *r, json_t *doc, const json_t *old, struct err *e)
{
    (void)r;
    (void)doc;
    (void)old;
    (void)e;
    return 0;
}
