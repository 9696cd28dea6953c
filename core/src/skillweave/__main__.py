"""``python -m skillweave`` runs the command-line interface."""

from skillweave.cli import main

if __name__ == "__main__":
    main()
