# make replay RR=1 at -smp 1 (BATCH=tests/replay/rr-gp-end.gdb): in the
# record's replay, find the grace period that ended under the failing
# reader, then stop at the report and step back from it.
#
# The failing reader read rcu_gp_completed() = $reader_completed at its
# end (tools/replay.py sets it from the record's console): the write that
# made the count that value is the end of the grace period that the
# reader outlived. QEMU 7.2's reverse-continue never returns
# (docs/replay.md); the record replays the same every time, so a
# watchpoint from the start, with the value for condition, stops at that
# write, and qs-reverse-continue from the report finds it too.
watch -l rcu_gp_seq.completed if rcu_gp_seq.completed == $reader_completed
continue
bt 6
monitor info replay
delete
break torture_report
continue
monitor info replay
reverse-stepi
p $pc
# Then back from there to the same write with qs-reverse-continue
# (tools/gdb/replay.py: reverse-continue by replaying the record forward),
# watching the count with no condition: the last write before the report.
delete
watch -l rcu_gp_seq.completed
qs-reverse-continue
p rcu_gp_seq.completed
monitor info replay
