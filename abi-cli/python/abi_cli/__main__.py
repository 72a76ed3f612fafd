"""`python -m abi_cli ARGS`: the `abi` command, as the console script runs it."""

from abi_cli import main

main()
