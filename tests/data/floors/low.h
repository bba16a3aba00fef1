/* A fixture of the test kernel.floors_refuses. */
int low_helper(int x);
int low_entry(int x);
int high_entry(int x);
