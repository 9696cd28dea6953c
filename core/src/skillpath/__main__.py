"""``python -m skillpath`` runs the command-line interface."""

from skillpath._launch import main

if __name__ == "__main__":
    main()
