# make replay RR=1 at -smp 1 (BATCH=tests/replay/rr-gp-end.gdb): in the
# record's replay, find the grace period that ended under the failing
# reader, then stop at the report and step back from it.
#
# The failing reader read rcu_gp_completed() = $reader_completed at its
# end (tools/replay.py sets it from the record's console): the write that
# made the count that value is the end of the grace period that the
# reader outlived. reverse-continue would find it from the report
# backwards, but never returns in QEMU 7.2 (docs/replay.md); the record
# replays the same every time, so a watchpoint from the start, with the
# value for condition, stops at the same write.
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
