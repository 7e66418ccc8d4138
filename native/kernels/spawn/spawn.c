/* spawn.c — what creating, running and reaping one process costs, and what a no-op build
 * that spawns processes costs.
 *
 * One iteration creates one child, lets it run to its exit and reaps it (unit "process"):
 *
 *   fork-exit            fork(); the child _exit(0)s: process creation without exec
 *   fork-exec            fork(); the child execve()s --param child (a static do-nothing)
 *   vfork-exec           the same with vfork(): no page tables copied, the parent waits
 *   posix-spawn          posix_spawn() of --param child (glibc: clone(CLONE_VM|CLONE_VFORK))
 *   posix-spawn-dynamic  posix_spawn() of --param child_dynamic (the same program, linked
 *                        dynamically: ld.so and libc relocation before main)
 *   posix-spawn-sh       posix_spawn() of `/bin/sh -c true`: what make pays per recipe line
 *                        that needs a shell
 *   command              posix_spawn() of the argv in --param command=FILE (one argument
 *                        per line), stdout to /dev/null, unit "run": a no-op build by
 *                        make or ninja, for instance; --param ok_status=N accepts status
 *                        N too (1: a search tool that found nothing, as grep says it)
 *
 * Every child must exit with status 0 (or the command's ok_status), or the run fails. The harness's software counters
 * count the parent only (the copy-on-write faults fork leaves it, for instance); what the
 * children cost is taken from getrusage(RUSAGE_CHILDREN) around each call, in setup and
 * teardown, outside the timed region, and printed as one extra line per call:
 *
 *   {"type":"children","case":"fork-exec","iters":123,"minflt":...,"majflt":...,
 *    "utime_ns":...,"stime_ns":...,"nvcsw":...,"nivcsw":...}
 *
 * The lines of warm-up and calibration calls come first; the last `reps` lines of a case
 * belong to its timed calls, in order.
 */
#include "cpulab_harness.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

#define MAX_ARGS 256

struct spawn_case {
    const char *name;
    struct rusage before;
};

static const char *child_path, *child_dynamic_path, *command_path;
static char *command_argv[MAX_ARGS + 1];
static char *command_text; /* the file's bytes, which command_argv points into */
static posix_spawn_file_actions_t quiet; /* stdout to /dev/null */

/* ---- children's resource usage ------------------------------------------------------- */

static void children_usage(struct rusage *ru)
{
    if (getrusage(RUSAGE_CHILDREN, ru) != 0)
        clh_fail("getrusage(RUSAGE_CHILDREN): %s", strerror(errno));
}

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static void usage_before(void *arg)
{
    children_usage(&((struct spawn_case *)arg)->before);
}

static void usage_after(void *arg)
{
    struct spawn_case *c = arg;
    struct rusage a, *b = &c->before;
    children_usage(&a);
    printf("{\"type\":\"children\",\"case\":\"%s\",\"iters\":%" PRIu64 ",\"minflt\":%ld,"
           "\"majflt\":%ld,\"utime_ns\":%" PRIu64 ",\"stime_ns\":%" PRIu64 ",\"nvcsw\":%ld,"
           "\"nivcsw\":%ld}\n",
           c->name, clh_call_iters(), a.ru_minflt - b->ru_minflt, a.ru_majflt - b->ru_majflt,
           tv_ns(a.ru_utime) - tv_ns(b->ru_utime), tv_ns(a.ru_stime) - tv_ns(b->ru_stime),
           a.ru_nvcsw - b->ru_nvcsw, a.ru_nivcsw - b->ru_nivcsw);
    fflush(stdout);
}

/* ---- reaping ---------------------------------------------------------------------------- */

/* A status besides 0 that the command's runs may end with (--param ok_status; 0: none). */
static int command_ok_status;

static void reap(pid_t pid, const char *what, int ok_status)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            clh_fail("%s: waitpid: %s", what, strerror(errno));
    if (WIFSIGNALED(status))
        clh_fail("%s: the child was killed by signal %d", what, WTERMSIG(status));
    if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != ok_status)
        clh_fail("%s: the child exited with status %d%s", what, WEXITSTATUS(status),
                 WEXITSTATUS(status) == 127 ? " (exec failed)" : "");
}

/* ---- the timed loops --------------------------------------------------------------------- */

static uint64_t fork_exit(uint64_t iters, void *arg)
{
    (void)arg;
    for (uint64_t i = 0; i < iters; i++) {
        pid_t pid = fork();
        if (pid < 0)
            clh_fail("fork-exit: fork: %s", strerror(errno));
        if (pid == 0)
            _exit(0);
        reap(pid, "fork-exit", 0);
    }
    return iters;
}

static uint64_t fork_exec(uint64_t iters, void *arg)
{
    (void)arg;
    char *const argv[] = { (char *)child_path, NULL };
    for (uint64_t i = 0; i < iters; i++) {
        pid_t pid = fork();
        if (pid < 0)
            clh_fail("fork-exec: fork: %s", strerror(errno));
        if (pid == 0) {
            execve(child_path, argv, environ);
            _exit(127);
        }
        reap(pid, "fork-exec", 0);
    }
    return iters;
}

/* Its own frame: the child borrows the parent's stack until it execs, so nothing the
 * loop keeps in registers may live in the frame that calls vfork. */
static __attribute__((noinline)) pid_t vfork_exec_one(char *const argv[])
{
    pid_t pid = vfork();
    if (pid == 0) {
        execve(argv[0], argv, environ); /* the only calls vfork allows: exec, _exit */
        _exit(127);
    }
    return pid;
}

static uint64_t vfork_exec(uint64_t iters, void *arg)
{
    (void)arg;
    char *const argv[] = { (char *)child_path, NULL };
    for (uint64_t i = 0; i < iters; i++) {
        pid_t pid = vfork_exec_one(argv);
        if (pid < 0)
            clh_fail("vfork-exec: vfork: %s", strerror(errno));
        reap(pid, "vfork-exec", 0);
    }
    return iters;
}

static void spawn_and_reap(const char *what, const char *path, char *const argv[],
                           const posix_spawn_file_actions_t *actions, int ok_status,
                           uint64_t iters)
{
    for (uint64_t i = 0; i < iters; i++) {
        pid_t pid;
        int err = posix_spawn(&pid, path, actions, NULL, argv, environ);
        if (err != 0)
            clh_fail("%s: posix_spawn(%s): %s", what, path, strerror(err));
        reap(pid, what, ok_status);
    }
}

static uint64_t spawn_static(uint64_t iters, void *arg)
{
    (void)arg;
    char *const argv[] = { (char *)child_path, NULL };
    spawn_and_reap("posix-spawn", child_path, argv, NULL, 0, iters);
    return iters;
}

static uint64_t spawn_dynamic(uint64_t iters, void *arg)
{
    (void)arg;
    char *const argv[] = { (char *)child_dynamic_path, NULL };
    spawn_and_reap("posix-spawn-dynamic", child_dynamic_path, argv, NULL, 0, iters);
    return iters;
}

static uint64_t spawn_sh(uint64_t iters, void *arg)
{
    (void)arg;
    char *const argv[] = { "sh", "-c", "true", NULL };
    spawn_and_reap("posix-spawn-sh", "/bin/sh", argv, NULL, 0, iters);
    return iters;
}

static uint64_t spawn_command(uint64_t iters, void *arg)
{
    (void)arg;
    spawn_and_reap("command", command_argv[0], command_argv, &quiet, command_ok_status, iters);
    return iters;
}

/* ---- parameters ------------------------------------------------------------------------ */

/* Reads FILE's lines into command_argv; argv[0] must be an absolute path (no PATH search). */
static void read_command(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        clh_usage_error("--param command=%s: %s", path, strerror(errno));
    size_t cap = 0;
    ssize_t n = getdelim(&command_text, &cap, '\0', f);
    fclose(f);
    if (n <= 0)
        clh_usage_error("--param command=%s: the file is empty", path);
    int argc = 0;
    for (char *line = strtok(command_text, "\n"); line; line = strtok(NULL, "\n")) {
        if (argc == MAX_ARGS)
            clh_usage_error("--param command=%s: more than %d arguments", path, MAX_ARGS);
        command_argv[argc++] = line;
    }
    if (argc == 0 || command_argv[0][0] != '/')
        clh_usage_error("--param command=%s: the first line must be an absolute program path",
                        path);
    command_argv[argc] = NULL;
}

static void require_program(const char *param, const char *path)
{
    if (access(path, X_OK) != 0)
        clh_usage_error("--param %s=%s: %s", param, path, strerror(errno));
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    child_path = clh_param_str("child", "");
    child_dynamic_path = clh_param_str("child_dynamic", "");
    command_path = clh_param_str("command", "");
    /* Where `command` writes: /dev/null, or a regular file truncated per run. GNU grep
     * and ugrep notice /dev/null and stop at the first match, so a search is timed
     * writing its whole output to a file. */
    const char *stdout_path = clh_param_str("stdout", "/dev/null");
    uint64_t ok_status = clh_param_u64("ok_status", 0);
    if (ok_status > 255)
        clh_usage_error("--param ok_status=%llu: an exit status is 0 .. 255",
                        (unsigned long long)ok_status);
    command_ok_status = (int)ok_status;

    static struct spawn_case state[7] = {
        { .name = "fork-exit" }, { .name = "fork-exec" }, { .name = "vfork-exec" },
        { .name = "posix-spawn" }, { .name = "posix-spawn-dynamic" },
        { .name = "posix-spawn-sh" }, { .name = "command" },
    };
    const clh_case all[] = {
        { .name = "fork-exit", .fn = fork_exit, .arg = &state[0], .unit = "process" },
        { .name = "fork-exec", .fn = fork_exec, .arg = &state[1], .unit = "process" },
        { .name = "vfork-exec", .fn = vfork_exec, .arg = &state[2], .unit = "process" },
        { .name = "posix-spawn", .fn = spawn_static, .arg = &state[3], .unit = "process" },
        { .name = "posix-spawn-dynamic", .fn = spawn_dynamic, .arg = &state[4],
          .unit = "process" },
        { .name = "posix-spawn-sh", .fn = spawn_sh, .arg = &state[5], .unit = "process" },
        { .name = "command", .fn = spawn_command, .arg = &state[6], .unit = "run" },
    };
    /* A case whose program was not named is left out: --list shows what can run. */
    clh_case cases[7];
    size_t n = 0;
    for (size_t i = 0; i < 7; i++) {
        const char *name = all[i].name;
        int needs_child = strstr(name, "exec") || !strcmp(name, "posix-spawn");
        if ((needs_child && !*child_path) ||
            (!strcmp(name, "posix-spawn-dynamic") && !*child_dynamic_path) ||
            (!strcmp(name, "command") && !*command_path))
            continue;
        cases[n] = all[i];
        cases[n].setup = usage_before;
        cases[n].teardown = usage_after;
        n++;
    }
    if (*child_path)
        require_program("child", child_path);
    if (*child_dynamic_path)
        require_program("child_dynamic", child_dynamic_path);
    if (*command_path) {
        read_command(command_path);
        require_program("command", command_argv[0]);
        /* A build started from `make` inherits its jobserver; the measured build must not. */
        unsetenv("MAKEFLAGS");
        unsetenv("MFLAGS");
        unsetenv("MAKELEVEL");
    }
    int err = posix_spawn_file_actions_init(&quiet);
    if (!err)
        err = posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, stdout_path,
                                               O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err)
        clh_fail("posix_spawn_file_actions: %s", strerror(err));
    int rc = clh_run(cases, n);
    posix_spawn_file_actions_destroy(&quiet);
    free(command_text);
    return rc;
}
