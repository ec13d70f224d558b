"""qs-rcu for tiny, Tiny RCU (kernel/rcu/rcu_tiny.c): one CPU, two lists."""
import gdb
import rcu_common


def show():
    cb = gdb.parse_and_eval("rcu_tiny_ctrlblk")
    print(f"rcu (tiny): grace periods begun {int(cb['gpnum'])}")
    rcu_common.show_generic()
    rcu_common.print_list("waitlist (waits for the next quiescent state)", cb["waitlist"])
    rcu_common.print_list("donelist (to invoke in RCU_SOFTIRQ)", cb["donelist"])
