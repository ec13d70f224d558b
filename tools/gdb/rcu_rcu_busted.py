"""qs-rcu for the busted variant: nothing waits, so there is nothing to show."""
import rcu_common


def show():
    print("rcu-busted: callbacks run inside call_rcu(); no grace period exists")
    rcu_common.show_generic()
