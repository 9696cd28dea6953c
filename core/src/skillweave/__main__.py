"""``python -m skillweave`` runs the command-line interface."""

from skillweave._launch import main

if __name__ == "__main__":
    main()
