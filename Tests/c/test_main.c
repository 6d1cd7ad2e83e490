/* The C API tests (cmocka): one executable, thirteen groups. */
int run_basics(void);
int run_data(void);
int run_live(void);
int run_nulls(void);
int run_hooks(void);
int run_reliability(void);
int run_import(void);
int run_statistics(void);
int run_workouts(void);
int run_clinical(void);
int run_sink(void);
int run_sync(void);
int run_arrow(void);

int main(void)
{
    int failed = run_basics();
    failed += run_data();
    failed += run_live();
    failed += run_nulls();
    failed += run_hooks();
    failed += run_reliability();
    failed += run_import();
    failed += run_statistics();
    failed += run_workouts();
    failed += run_clinical();
    failed += run_sink();
    failed += run_sync();
    failed += run_arrow();
    return failed != 0;
}
