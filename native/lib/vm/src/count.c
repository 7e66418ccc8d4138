/* The counting loop: the switch technique with a counter of dispatches.
 *
 * Benchmarks report time per VM instruction, so they need the exact number
 * of instructions a run executes; counting inside the measured techniques
 * would change what they measure, so one untimed counting run gives it
 * (vm_machine_count). Every technique executes the same instructions; the
 * tests check that against the dispatch trace of each.
 */
#define VM_SWITCH_FN vm_exec_counted
#define VM_SWITCH_COUNTING 1
#include "dispatch_switch.c"
