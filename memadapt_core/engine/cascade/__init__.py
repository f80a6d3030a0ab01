"""What a delete or a rewrite takes with it: the records derived only from deleted ones (``derived``) and the word
index of a message's neighbours (``neighbours``)."""
