int LLVMFuzzerTestOneInput(const char *d, unsigned long s) { (void)d; (void)s; return 0; }
