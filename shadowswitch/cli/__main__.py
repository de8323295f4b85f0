"""`python -m shadowswitch.cli`: the same as the `shadowswitch` command."""

from shadowswitch.cli import main

if __name__ == "__main__":
    main()
