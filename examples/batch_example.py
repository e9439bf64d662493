#!/usr/bin/python3
"""A batch of example-app jobs from Python: submit, watch, download, retire.

    PYTHONPATH=python examples/batch_example.py URL AUTHENTICATOR [JOBS]

URL is the project's master URL (e.g. what `./tharsis demo --keep` prints), AUTHENTICATOR
an account granted submit access (bin/grant_submit --project_dir P --email E --all)."""
import sys
import tempfile
from pathlib import Path

import tharsis


def main() -> None:
    url, key = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    client = tharsis.Client(url, key)
    with tempfile.TemporaryDirectory() as work:
        first = Path(work, "input0")
        first.write_text("seed 0\niterations 50\nterms 2000\n")  # sent through job_file.php
        jobs = [tharsis.Job(inputs=[first])]
        jobs += [tharsis.Job(inputs=[f"seed {i}\niterations 50\nterms 2000\n".encode()]) for i in range(1, count)]
        batch = client.submit_batch("example", jobs)
        print(f"submitted batch {batch.id} with {count} jobs")
        info = batch.wait(progress=True)
        print(f"{info.njobs_done} jobs done, {info.nerror_jobs} failed")
        for path in batch.download(Path(work, "outputs")):
            print(path.relative_to(work), path.stat().st_size, "bytes")
        batch.retire()


if __name__ == "__main__":
    main()
