/* Arrow tables through the C Data Interface: the schema a consumer reads,
 * the buffers it gets, and the release rules (each struct once; a child
 * moved out lives on after its parent is released). */
#include <math.h>
#include <stdlib.h>

#include "support.h"

/* The child of `schema` named `name`, its index in *index. */
static const struct ArrowSchema *field(const struct ArrowSchema *schema, const char *name, int64_t *index)
{
    for (int64_t i = 0; i < schema->n_children; i++)
        if (strcmp(schema->children[i]->name, name) == 0) {
            *index = i;
            return schema->children[i];
        }
    fail_msg("no column %s", name);
    return NULL;
}

/* Entry `i` of a dictionary's utf8 values. */
static void dictionary_entry(const struct ArrowArray *dictionary, int32_t i, char *out, size_t room)
{
    const int32_t *offsets = dictionary->buffers[1];
    const char *bytes = dictionary->buffers[2];
    size_t n = (size_t)(offsets[i + 1] - offsets[i]);
    assert_true(n < room);
    memcpy(out, bytes + offsets[i], n);
    out[n] = '\0';
}

static void fetch(fixture *f, struct ArrowArray *array, struct ArrowSchema *schema, const char *unit)
{
    ohk_descriptor d = { STEPS, NULL };
    ohk_arrow_options o = OHK_ARROW_OPTIONS_INIT;
    o.descriptors = &d;
    o.descriptor_count = 1;
    o.unit = unit;
    ohk_batch *rest = NULL;
    OK(ohk_store_fetch_arrow(&rest, array, schema, f->store, &o));
    assert_non_null(rest);
    assert_int_equal(sample_count(rest), 0); /* the samples are in the table only */
    ohk_batch_free(rest);
}

/* The table's schema and buffers hold what ohk_store_fetch returns. */
static void rule71_a_fetch_exports_the_samples_as_an_arrow_struct_array(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 10));
    struct ArrowArray array;
    struct ArrowSchema schema;
    fetch(f, &array, &schema, NULL);
    assert_string_equal(schema.format, "+s");
    assert_int_equal(array.length, 10);
    assert_int_equal(array.n_children, schema.n_children);
    assert_int_equal(schema.n_children, 12);

    int64_t k;
    assert_string_equal(field(&schema, "uuid", &k)->format, "w:16");
    assert_string_equal(field(&schema, "start_date", &k)->format, "tsu:UTC");
    const int64_t *start = array.children[k]->buffers[1];
    const struct ArrowSchema *value = field(&schema, "value", &k);
    assert_string_equal(value->format, "g");
    assert_null(array.children[k]->buffers[0]); /* no nulls: no bitmap */
    const double *v = array.children[k]->buffers[1];
    for (int i = 0; i < 10; i++) {
        assert_true(v[i] == (double)i);
        assert_int_equal(start[i], (int64_t)(T0 + 60 * i) * 1000000);
    }
    const struct ArrowSchema *type = field(&schema, "type", &k);
    assert_string_equal(type->format, "i");
    assert_non_null(type->dictionary);
    assert_string_equal(type->dictionary->format, "u");
    char text[128];
    dictionary_entry(array.children[k]->dictionary, ((const int32_t *)array.children[k]->buffers[1])[9], text, sizeof text);
    assert_string_equal(text, STEPS);
    const struct ArrowSchema *metadata = field(&schema, "metadata", &k);
    assert_string_equal(metadata->format, "U");
    assert_true(metadata->flags & ARROW_FLAG_NULLABLE);
    assert_int_equal(array.children[k]->null_count, 10); /* no sample has metadata */
    field(&schema, "utc_offset", &k);
    assert_int_equal(array.children[k]->null_count, 10);

    array.release(&array);
    assert_null(array.release);
    schema.release(&schema);
    assert_null(schema.release);
}

/* A consumer may move a child out and release the parent first. */
static void rule71_a_moved_child_outlives_its_released_parent(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 4));
    struct ArrowArray array;
    struct ArrowSchema schema;
    fetch(f, &array, &schema, NULL);
    int64_t k;
    field(&schema, "value", &k);
    struct ArrowArray moved = *array.children[k];
    array.children[k]->release = NULL; /* moved, as the specification says */
    array.release(&array);
    schema.release(&schema);
    const double *v = moved.buffers[1];
    assert_true(v[3] == 3.0);
    moved.release(&moved);
    assert_null(moved.release);
}

/* Rule 44 through C: values in another unit, rounded to 15 digits. */
static void rule44_arrow_values_in_a_unit_are_rounded_to_15_digits(void **state)
{
    fixture *f = *state;
    ohk_sample_input s = steps_input(0);
    s.type = HEART;
    s.unit = "count/min";
    s.value = 62;
    OK(ohk_store_save(NULL, f->store, &s, 1));
    ohk_descriptor d = { HEART, NULL };
    ohk_arrow_options o = OHK_ARROW_OPTIONS_INIT;
    o.descriptors = &d;
    o.descriptor_count = 1;
    o.unit = "count/min";
    o.columns = OHK_ARROW_VALUE | OHK_ARROW_UNIT;
    struct ArrowArray array;
    struct ArrowSchema schema;
    ohk_batch *rest = NULL;
    OK(ohk_store_fetch_arrow(&rest, &array, &schema, f->store, &o));
    assert_int_equal(schema.n_children, 2);
    assert_true(((const double *)array.children[0]->buffers[1])[0] == 62.0); /* not 61.99999999999999 */
    array.release(&array);
    schema.release(&schema);
    ohk_batch_free(rest);

    o.unit = "kg";
    EXPECT(OHK_ERR_INCOMPATIBLE_UNIT, ohk_store_fetch_arrow(&rest, &array, &schema, f->store, &o));
    o.unit = NULL;
    o.columns = 1u << 20;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch_arrow(&rest, &array, &schema, f->store, &o));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch_arrow(&rest, &array, &schema, f->store, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_arrow_options_init(&o, OHK_ARROW_OPTIONS_VERSION + 1));
}

/* A batch and a statistics collection export as well. */
static void batches_and_statistics_export_too(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 6));
    ohk_batch *b = query_type(f->store, STEPS, NULL, 0);
    struct ArrowArray array;
    struct ArrowSchema schema;
    OK(ohk_batch_export_arrow(&array, &schema, b, NULL));
    ohk_batch_free(b); /* the table owns its columns */
    int64_t k;
    field(&schema, "value", &k);
    assert_true(((const double *)array.children[k]->buffers[1])[5] == 5.0);
    array.release(&array);
    schema.release(&schema);

    ohk_statistics_options s = OHK_STATISTICS_OPTIONS_INIT;
    s.type = STEPS;
    s.flags = OHK_STATISTICS_SUM;
    s.anchor = T0;
    s.from = T0;
    s.to = T0 + 2 * 86400 - 1;
    ohk_statistics_result *r = NULL;
    OK(ohk_store_statistics_collection(&r, f->store, &s));
    OK(ohk_statistics_result_export_arrow(&array, &schema, r, NULL));
    assert_int_equal(array.length, (int64_t)r->interval_count);
    const struct ArrowSchema *sum = field(&schema, "sum", &k);
    assert_string_equal(sum->format, "g");
    assert_true(((const double *)array.children[k]->buffers[1])[0] == r->intervals[0].values.sum);
    assert_int_equal(array.children[k]->null_count, 1); /* the second day has no data: a null, not NaN */
    ohk_statistics_result_free(r);
    array.release(&array);
    schema.release(&schema);
}

int run_arrow(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rule71_a_fetch_exports_the_samples_as_an_arrow_struct_array, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule71_a_moved_child_outlives_its_released_parent, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule44_arrow_values_in_a_unit_are_rounded_to_15_digits, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(batches_and_statistics_export_too, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("arrow", tests, NULL, NULL);
}
