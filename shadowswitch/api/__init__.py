"""HTTP wire format in and out."""
