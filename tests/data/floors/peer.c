/* A fixture of the test kernel.floors_refuses. */
int high_entry(int x);

int peer_entry(int x)
{
    return x > 0 ? high_entry(x - 1) : 0;
}
