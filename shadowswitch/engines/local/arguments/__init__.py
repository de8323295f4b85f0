"""The chosen tool's arguments: values extracted from the text, scored per parameter, assigned."""
