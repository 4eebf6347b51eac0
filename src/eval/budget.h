/* Budgets of a session's runs: the bytes of tensors alive at once, and a deadline. The
 * session makes its budget current for the thread that runs it; allocating a tensor
 * charges it and checks the deadline, and the executor checks the deadline on entering
 * every graph (each Loop and Scan iteration, each function call). */
#ifndef OX_EVAL_BUDGET_H
#define OX_EVAL_BUDGET_H

#include <stddef.h>
#include <stdint.h>

typedef struct ox_budget ox_budget;

/* A budget with the default memory limit (half of physical memory) and no deadline;
 * NULL when out of memory. */
ox_budget *ox_budget_new(void);
/* Drops the owner's reference; tensors still charged to it keep it alive. */
void ox_budget_release(ox_budget *b);
/* 0 lifts the limit. */
void ox_budget_set_memory(ox_budget *b, uint64_t bytes);
/* Seconds per run; 0 means no deadline. */
void ox_budget_set_timeout(ox_budget *b, double seconds);

/* Makes b current for this thread and starts the run's clock; returns the budget that
 * was current, for ox_budget_leave. */
ox_budget *ox_budget_enter(ox_budget *b);
void ox_budget_leave(ox_budget *prev);

/* Charges a new tensor of bytes to the current budget, checking the deadline first.
 * Returns 0 with *owner the budget charged (it holds a reference; NULL outside a run),
 * or -1 with the limit that refused it in *why. */
int ox_budget_charge(size_t bytes, ox_budget **owner, const char **why);
/* Gives back what ox_budget_charge took. */
void ox_budget_credit(ox_budget *owner, size_t bytes);

/* The current run's deadline: 0 when it has not passed (or there is none), else -1
 * with the message in *why. */
int ox_budget_check_time(const char **why);
/* The message of the limit the current run hit, or NULL when it hit none. */
const char *ox_budget_tripped(void);

#endif
