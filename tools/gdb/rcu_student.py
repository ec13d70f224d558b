"""qs-rcu for student (kernel/rcu/rcu_student.c, Lab 4): the counters every
variant keeps through kernel/rcu (grace periods begun and ended, callbacks
queued and invoked, quiescent states counted per CPU). Your own data you
print with gdb by name: `print rcu_qsmask`, `print rcu_quiescent_checkpoint`
(labs/lab4-rcu-implementation/README.md)."""
import rcu_common


def show():
    print("rcu (student): your variant's own data: print it by name "
          "(e.g. print rcu_qsmask); what kernel/rcu counts for it:")
    rcu_common.show_generic()
