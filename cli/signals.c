/* cli/signals.c - partial outputs removed when a signal ends the run.
 * Every signal whose default action ends the process removes the named temporary outputs first
 * (unnamed ones vanish by themselves, SIGKILL included): the signals a user or the system sends,
 * and the crash signals (SEGV, BUS, FPE, ILL, ABRT, TRAP, SYS), whether another process sent them
 * or the process faulted. A fault then meets the default action again (the faulting instruction
 * runs once more), so a core dump still shows where it was. Sanitizer builds leave the crash
 * signals to the sanitizer's own handler. */
#include "cli.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static void on_signal(int sig)
{
    gs_io_remove_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* SIGPIPE from our own write to a closed pipe is ignored (the write fails with EPIPE and the run
 * ends quietly); one sent by another process ends the run like SIGTERM. */
static void on_sigpipe(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (si && si->si_pid == getpid()) return;
    on_signal(sig);
}

/* A crash signal: sent (kill, raise, abort: si_code <= 0) it is raised again with its default
 * action; a fault returns to the faulting instruction, which raises it again by default. */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    gs_io_remove_temps();
    signal(sig, SIG_DFL);
    if (!si || si->si_code <= 0) raise(sig);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GS_CRASH_HANDLERS 0
#else
#define GS_CRASH_HANDLERS 1
#endif

void install_signals(void)
{
    static const int fatal[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
                                SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT};
    static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &sa, NULL);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) sigaction(sig, &sa, NULL);
    sa.sa_handler = NULL;
    sa.sa_sigaction = on_sigpipe;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGPIPE, &sa, NULL);
    sa.sa_sigaction = on_crash;
    for (size_t i = 0; GS_CRASH_HANDLERS && i < sizeof crash / sizeof crash[0]; i++) sigaction(crash[i], &sa, NULL);
}
