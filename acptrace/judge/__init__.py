"""Stage 4, judge: observations in, outcome rows and findings out.

The rule registry (`judge.rules`), the outcome table (`judge.outcomes`) and the policy that
decides what fails a run (`judge.policy`).
"""
