"""Estimates and counts of short boards, one after the other, timed from here.

    python3 run.py BINARY ROUNDS 16,17 > rows.jsonl

Each round, for each N and kernel (avx512, avx2), on 2 threads: `nqueens estimate N`,
then `nqueens count N` (its wall time from this launcher, its own clock from its JSON,
its user and system time and minor faults), then `nqueens count 4` (a process doing next
to nothing). One JSON object per line.
"""
import json, resource, subprocess, sys, time
binary, rounds = sys.argv[1], int(sys.argv[2])
boards = [int(x) for x in sys.argv[3].split(',')]
def run(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([binary] + args, capture_output=True, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    use = dict(user=after.ru_utime - before.ru_utime, sys=after.ru_stime - before.ru_stime,
               faults=after.ru_minflt - before.ru_minflt)
    return wall, json.loads(p.stdout), use
for r in range(rounds):
    for n in boards:
        for k in ['avx512', 'avx2']:
            common = ['--kernel', k, '--threads', '2', '--json', '--progress', 'never']
            ew, e, _ = run(['estimate', str(n)] + common)
            cw, c, x = run(['count', str(n)] + common)
            bw, _, bx = run(['count', '4'] + common)
            row = dict(n=n, kernel=k, round=r, pred=e['predicted_wall_s'], low=e['predicted_wall_s_low'],
                       high=e['predicted_wall_s_high'], est_wall=ew, count_wall=cw, count_clock=c['elapsed_s'],
                       base_wall=bw, base_faults=bx['faults'], sample_share=e['sample_share'], sampled=e['sampled'],
                       sampled_count=e['sampled_count'], core_hours=e['core_hours'], **x)
            print(json.dumps(row), flush=True)
