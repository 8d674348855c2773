# A root whose refresh-only plan reads a data source through a provider S3 endpoint the test
# chooses (one that accepts connections and never answers), while the state backend works: the
# plan hangs with its state loaded, as a plan behind a dead proxy or VPC endpoint does.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

variable "s3_endpoint" {
  type = string
}

provider "aws" {
  region                      = "eu-west-1"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  endpoints {
    s3 = var.s3_endpoint
  }
}

data "aws_s3_bucket" "logs" {
  bucket = "hanging-read-logs"
}
