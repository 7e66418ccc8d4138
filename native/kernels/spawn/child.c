/* child.c — the smallest program worth spawning: it does nothing and exits 0.
 *
 * The spawn experiment builds it twice, statically (no dynamic loader, no libc start-up
 * beyond the bare minimum: what process creation itself costs) and dynamically (what a
 * typical program such as /bin/sh or make pays in ld.so before main), and times how fast
 * a parent can create, run and reap it.
 */
int main(void)
{
    return 0;
}
