# Did a make replay STOP=-N land before the failure, inside the failing
# reader's section? For gdb at the stop (BATCH=tests/replay/stop-in-reader.gdb,
# or `source` it there); docs/replay.md, "Where the stop landed", says how
# it decides. tools/replay.py sets $stop_ns at the stop and, from the first
# run's console, $failure_ns and the failing reader's record:
# $reader_started (rcu_gp_started() at the reader's start) and
# $reader_completed (rcu_gp_completed() at its end). The grace-period
# counts at the stop are the kernel's own (kernel/rcu/gp_sequence.c), the
# same for every variant.
set $gp_started = rcu_gp_seq.started
set $gp_completed = rcu_gp_seq.completed
printf "check: at the stop (%lu ns) grace periods started %lu, completed %lu\n", $stop_ns, $gp_started, $gp_completed
if $_isvoid($failure_ns)
  echo check: no failure to stop before (STOP=T, or the first run did not fail)\n
else
  # The console stamps to the microsecond: a stop within the report's own
  # microsecond counts as not before it.
  if $stop_ns < $failure_ns
    printf "check: before the failure: yes, %lu ns before it\n", $failure_ns - $stop_ns
  else
    printf "check: before the failure: no, %lu ns after it\n", $stop_ns - $failure_ns
  end
end
if $_isvoid($reader_started)
  echo check: the first failure is not a reader's grace-period report: no record to compare\n
else
  printf "check: the failing reader (CPU %d): started %lu at its start, completed %lu at its end\n", $reader_cpu, $reader_started, $reader_completed
  # The reader read started = $reader_started before grace period
  # $reader_started + 1 was counted: a larger count now means it has begun.
  # It will read completed = $reader_completed at its end: a smaller count
  # now means it has not ended, and a grace period it outlives is still to end.
  if $gp_started > $reader_started && $gp_completed < $reader_completed
    printf "check: inside the failing reader's section: yes, grace period %lu has begun under it and %lu more are to end before it does\n", $reader_started + 1, $reader_completed - $gp_completed
  else
    if $gp_started <= $reader_started
      printf "check: inside the failing reader's section: no, too early: started %lu <= %lu, the reader may not have begun\n", $gp_started, $reader_started
    else
      printf "check: inside the failing reader's section: no, too late: completed %lu >= %lu, the grace periods it outlives have all ended\n", $gp_completed, $reader_completed
    end
  end
end
