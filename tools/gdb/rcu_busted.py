"""qs-rcu for busted (kernel/rcu/rcu_busted.c): nothing waits, so there is nothing to show."""
import rcu_common


def show():
    print("rcu (busted): callbacks run inside call_rcu(); no grace period exists")
    rcu_common.show_generic()
