/* The C API tests (cmocka): one executable, three groups. */
int run_basics(void);
int run_data(void);
int run_live(void);

int main(void)
{
    int failed = run_basics();
    failed += run_data();
    failed += run_live();
    return failed != 0;
}
